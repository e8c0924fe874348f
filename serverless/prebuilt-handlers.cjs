// A serverless plugin, before serverless-esbuild, for local servers only: with OFFLINE_PREBUILT_HANDLERS
// set to a folder of bundles (relative to the service: another serverless-offline's build folder,
// or the tests' ci package's, kept), `offline start` serves them instead of building every
// function again. A bundle reads its settings at run time, not at build, and each build of every
// function costs about 20 s of CPU (tests/setup/shared-package.ts builds one a run).
// When the folder has a bundle for every function, the server serves it as it is. When some are
// missing (the local-only pages, which no deployed stage packages), its bundles are copied into
// this server's own build folder and serverless-esbuild builds only the missing ones there.
// Unset, as on every deploy and package, it does nothing.
const { cpSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const { bundleOf } = require('./one-build.cjs');

class PrebuiltHandlers {
  constructor(serverless) {
    const location = process.env.OFFLINE_PREBUILT_HANDLERS;
    if (!location) {
      this.hooks = {};
      return;
    }
    const servePrebuilt = () => {
      const service = serverless.service;
      const esbuild = service.custom.esbuild ?? {};
      const extension = esbuild.outputFileExtension ?? '.js';
      const root = serverless.serviceDir;
      const functions = Object.values(service.functions ?? {});
      const built = (definition) => existsSync(join(root, location, bundleOf(definition.handler, extension)));
      // serverless-esbuild builds only the functions not marked (its own per-function opt-out).
      for (const definition of functions) if (built(definition)) definition.skipEsbuild = true;
      if (functions.every(built)) {
        service.custom['serverless-offline'] = { ...service.custom['serverless-offline'], location };
        return;
      }
      const ownBuild = join(root, esbuild.outputWorkFolder ?? '.esbuild', esbuild.outputBuildFolder ?? '.build');
      cpSync(join(root, location), ownBuild, { recursive: true });
    };
    this.hooks = { 'before:offline:start': servePrebuilt, 'before:offline:start:init': servePrebuilt };
  }
}

module.exports = PrebuiltHandlers;
