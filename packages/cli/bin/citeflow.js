#!/usr/bin/env node
// Committed entry point (npm links it at install time, before any build): runs the built CLI.
import "../dist/bin.js";
