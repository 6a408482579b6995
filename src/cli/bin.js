#!/usr/bin/env node
// Entry point for `broadsheet` when installed as a package: runs the TypeScript CLI through tsx.
require('tsx/cjs');
require('./main.ts');
