#!/usr/bin/env node
// The `leadline` command: runs the compiled CLI — in a checkout built by `npm install` through
// `prepare`; in an installed package shipped built (the tarball holds dist/, not the sources).
import '../dist/cli/main.js';
