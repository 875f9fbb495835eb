// The end-to-end scenarios against the machine's PostgreSQL (a fresh database per run).
import { defineGatewayScenarios } from "./gateway-scenarios";

defineGatewayScenarios("postgresql");
