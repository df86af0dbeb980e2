// Before the unit tests (`npm test`, `npm run test:unit`): installs bubblewrap and socat when they
// (and busybox, for one hostile command case) are missing and this runs as root (as CI does), so
// the sandbox suites run rather than skip.
'use strict';

require('./lib/host').ensureSandboxPackages();
