// A serverless plugin, before serverless-esbuild, for local servers only: with OFFLINE_PREBUILT_HANDLERS
// set to another serverless-offline's build folder (relative to the service), `offline start`
// builds nothing and serves the handlers found there. The tests' servers with settings of their
// own (tests/setup/test-environment.ts) serve the shared server's bundles: a bundle reads its
// settings at run time, not at build, and each build of every function cost about 50 s of CPU
// (four of them in every npm test). Unset, as on every deploy and package, it does nothing.

class PrebuiltHandlers {
  constructor(serverless) {
    const location = process.env.OFFLINE_PREBUILT_HANDLERS;
    if (!location) {
      this.hooks = {};
      return;
    }
    const servePrebuilt = () => {
      // serverless-esbuild builds only the functions not marked (its own per-function opt-out).
      for (const definition of Object.values(serverless.service.functions ?? {})) definition.skipEsbuild = true;
      const custom = serverless.service.custom;
      custom['serverless-offline'] = { ...custom['serverless-offline'], location };
    };
    this.hooks = { 'before:offline:start': servePrebuilt, 'before:offline:start:init': servePrebuilt };
  }
}

module.exports = PrebuiltHandlers;
