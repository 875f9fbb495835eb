// The end-to-end scenarios against the embedded default, PGlite (a fresh data directory per run).
import { defineGatewayScenarios } from "./gateway-scenarios";

defineGatewayScenarios("pglite");
