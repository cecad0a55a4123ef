#!/usr/bin/env node
// The Draftsmith CLI: the same engine as the extension, from a terminal.
require('../dist/cli.js');
