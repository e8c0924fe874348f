// esbuild plugins for the function bundles (serverless.yml, custom.esbuild.plugins).
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { basename, join } = require('node:path');
const { consolePage } = require('./console-page.cjs');
const { parsingMetadata } = require('./phone-metadata.cjs');

/**
 * libphonenumber-js ships its numbering plan as a JavaScript object literal (metadata.max.json.js,
 * 150 KB), which V8 must parse in full at import; the same data as one string handed to
 * JSON.parse costs about a third less CPU at every cold start (docs/performance.md). It is read
 * from the JSON file the package ships beside it, less what only formatting reads (a third of it:
 * serverless/phone-metadata.cjs).
 */
const phoneMetadataAsJson = {
  name: 'phone-metadata-as-json',
  setup(build) {
    build.onLoad({ filter: /[\\/]libphonenumber-js[\\/]metadata\.[a-z]+\.json\.js$/ }, (args) => {
      const metadata = parsingMetadata(JSON.parse(readFileSync(args.path.replace(/\.js$/, ''), 'utf8')));
      return { contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(metadata))});`, loader: 'js' };
    });
  },
};

/**
 * @middy/core imports node:stream/web and node:stream/promises at its top for the responses it
 * streams (streamifyResponse), which no function here does: loading the two cost every HTTP
 * function's cold start about 1.5 ms (docs/performance.md). For middy alone they are stand-ins
 * that reach the real ones when used: `instanceof ReadableStream` asks the global class, and
 * `pipeline` imports node:stream/promises on its first call.
 */
const MIDDY_STREAMING_STAND_INS = {
  'node:stream/web':
    'export class ReadableStream { static [Symbol.hasInstance](value) { return value instanceof globalThis.ReadableStream; } }\n',
  'node:stream/promises': "export const pipeline = async (...streams) => (await import('node:stream/promises')).pipeline(...streams);\n",
};

const middyStreamingOnFirstUse = {
  name: 'middy-streaming-on-first-use',
  setup(build) {
    build.onResolve({ filter: /^node:stream\/(web|promises)$/ }, (args) =>
      /[\\/]@middy[\\/]core[\\/]/.test(args.importer) ? { path: args.path, namespace: 'middy-streaming' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'middy-streaming' }, (args) => ({
      contents: MIDDY_STREAMING_STAND_INS[args.path],
      loader: 'js',
    }));
  },
};

/**
 * One build's metafile cut into what a build of each entry point alone would write: its output, and
 * the modules reachable from the entry by their imports (serverless/one-build.cjs builds every
 * function at once).
 */
function metafilesByEntry(metafile) {
  const byEntry = {};
  for (const [outputPath, output] of Object.entries(metafile.outputs)) {
    if (!output.entryPoint) continue;
    const reached = new Set();
    const waiting = [output.entryPoint];
    while (waiting.length) {
      const path = waiting.pop();
      if (reached.has(path) || !metafile.inputs[path]) continue;
      reached.add(path);
      for (const imported of metafile.inputs[path].imports) if (!imported.external) waiting.push(imported.path);
    }
    byEntry[output.entryPoint] = {
      inputs: Object.fromEntries(Object.entries(metafile.inputs).filter(([path]) => reached.has(path))),
      outputs: { [outputPath]: output },
    };
  }
  return byEntry;
}

/**
 * With ESBUILD_METAFILE_DIR set, each bundle's metafile (the modules it holds and how each is
 * imported) is written there as <handler file>.json: tests/deploy/bundle-contents.test.ts reads
 * those of the packaged bundles themselves. Unset (a deploy), nothing changes.
 */
const metafiles = {
  name: 'metafiles',
  setup(build) {
    const folder = process.env.ESBUILD_METAFILE_DIR;
    if (!folder) return;
    build.initialOptions.metafile = true;
    build.onEnd((result) => {
      if (!result.metafile) return;
      mkdirSync(folder, { recursive: true });
      for (const [name, metafile] of Object.entries(metafilesByEntry(result.metafile))) {
        writeFileSync(join(folder, `${basename(name).replace(/\.[cm]?[jt]s$/, '')}.json`), JSON.stringify(metafile));
      }
    });
  },
};

/**
 * @simplewebauthn/server's entry points re-export everything (attestation formats, certificate
 * paths, the FIDO metadata service) from modules its package.json does not declare free of side
 * effects, so esbuild keeps all of them, and with them @peculiar/x509, tsyringe and
 * reflect-metadata, in a function that only verifies an assertion (passkeysLogin: 922 KB of
 * bundle, 126 KB of it never called). Its modules only define and export (the library's own
 * singletons are made where they are exported): declared free of side effects here, a bundle keeps
 * what its function calls. tests/deploy/bundle-contents.test.ts checks which bundles hold x509.
 */
const WEBAUTHN_SERVER = /[\\/]@simplewebauthn[\\/]server[\\/]/;
const webauthnWithoutUnusedParts = {
  name: 'webauthn-without-unused-parts',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.resolvedByWebauthnPlugin) return undefined;
      if (!args.path.startsWith('@simplewebauthn/server') && !WEBAUTHN_SERVER.test(args.importer)) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { resolvedByWebauthnPlugin: true },
      });
      if (resolved.errors.length || !WEBAUTHN_SERVER.test(resolved.path)) return undefined;
      return { path: resolved.path, sideEffects: false };
    });
  },
};

/**
 * The service asks for no attestation and drops any statement sent anyway before the library reads
 * it (lib/passkeys/passkey-attestation.ts), so @simplewebauthn/server's verifiers of the attestation
 * formats other than `none` (packed, fido-u2f, android-key, android-safetynet, apple, tpm) are
 * never called. They are statically imported by its registration check, and with them
 * @peculiar/x509, tsyringe, reflect-metadata and the FIDO metadata service: each is bundled as a
 * stand-in that refuses, which keeps the passkey registration's zip (about 31 KB less) under
 * serverless/zip-budgets.cjs's 250 KB. tests/deploy/bundle-contents.test.ts checks that no bundle holds them.
 */
const UNREAD_ATTESTATION_FORMAT =
  /[\\/]@simplewebauthn[\\/]server[\\/]esm[\\/]registration[\\/]verifications[\\/](?:tpm[\\/])?(verifyAttestation\w+)\.js$/;
const attestationFormatsUnread = {
  name: 'attestation-formats-unread',
  setup(build) {
    build.onLoad({ filter: UNREAD_ATTESTATION_FORMAT }, (args) => {
      const name = UNREAD_ATTESTATION_FORMAT.exec(args.path)[1];
      const refusal = `${name} is not bundled: the service drops attestation statements unread (lib/passkeys/passkey-attestation.ts)`;
      return { contents: `export async function ${name}() { throw new Error(${JSON.stringify(refusal)}); }\n`, loader: 'js' };
    });
  },
};

module.exports = [
  phoneMetadataAsJson,
  middyStreamingOnFirstUse,
  webauthnWithoutUnusedParts,
  attestationFormatsUnread,
  metafiles,
  consolePage,
];
