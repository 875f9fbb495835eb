// Where the test suite finds PostgreSQL and Redis, and the one command that starts both
// (deploy/compose/test-services.yaml): shared by the suite's preflight and its harnesses.
export const DEFAULT_TEST_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test";
export const DEFAULT_TEST_REDIS_URL = "redis://127.0.0.1:6379";
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? DEFAULT_TEST_POSTGRES_URL;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? DEFAULT_TEST_REDIS_URL;
export const START_TEST_SERVICES = "docker compose -f deploy/compose/test-services.yaml up -d postgres redis";
