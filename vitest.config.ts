import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Tests import the built packages (dist), exactly what the CLI and other packages run.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
