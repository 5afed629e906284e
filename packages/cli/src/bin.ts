#!/usr/bin/env node
// Placeholder: the CLI issue builds `reporter`.
process.stderr.write('reporter: not implemented yet\n');
process.exit(2);
