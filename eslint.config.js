// @ts-check
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const API = 'apps/api/src';

/**
 * The API's layers, lowest first: each may import the ones below it and itself. `core` (errors,
 * tenant context, ids) is below `db` (ORM, pool, migrations), below `modules` (the services), below
 * `http` (transport). The composition roots wire them all.
 */
const apiLayers = {
  plugins: { boundaries },
  settings: {
    'boundaries/root-path': import.meta.dirname,
    'boundaries/legacy-templates': false,
    'import/resolver': { node: { extensions: ['.ts', '.js'] } },
    // Folders are elements; the single files around them are told apart by file categories.
    'boundaries/elements': [
      { type: 'root', pattern: `${API}/cli`, partialMatch: false },
      { type: 'core', pattern: `${API}/core`, partialMatch: false },
      { type: 'db', pattern: `${API}/db`, partialMatch: false },
      { type: 'module', pattern: `${API}/modules/*`, partialMatch: false, capture: ['name'] },
      { type: 'http', pattern: `${API}/http`, partialMatch: false },
      { type: 'openapi', pattern: `${API}/openapi`, partialMatch: false },
    ],
    'boundaries/files': [
      { category: 'root', pattern: `${API}/{app,main,serve,cli,bootstrap}.ts` },
      { category: 'config', pattern: `${API}/config.ts` },
      { category: 'entities', pattern: `${API}/modules/entities.ts` },
      { category: 'service', pattern: '**/*.service.ts' },
      { category: 'entity', pattern: '**/*.entity.ts' },
    ],
  },
  rules: {
    // A new file outside these folders and files has to be given its place first.
    'boundaries/no-unknown-files': 'error',
    'boundaries/dependencies': [
      'error',
      {
        default: 'disallow',
        message:
          '{{ from.element.type }} may not import {{ to.file.path }}: in apps/api/src, http → modules → db → core (and http → openapi), and a module uses another through its service',
        policies: [
          // The composition roots wire everything together.
          { from: { element: { type: 'root' } }, allow: { to: { module: { origin: 'local' } } } },
          {
            from: { file: { categories: 'root' } },
            allow: { to: { module: { origin: 'local' } } },
          },
          { from: { element: { type: 'core' } }, allow: { to: { element: { type: 'core' } } } },
          { from: { element: { type: 'db' } }, allow: { to: { element: { type: 'core' } } } },
          {
            from: { element: { type: 'module' } },
            allow: { to: { element: { types: { anyOf: ['core', 'db'] } } } },
          },
          // Another module is reached through its service; its entities only as types.
          {
            from: { element: { type: 'module' } },
            allow: { to: { element: { type: 'module' }, file: { categories: 'service' } } },
          },
          {
            from: { element: { type: 'module' } },
            allow: {
              to: { element: { type: 'module' }, file: { categories: 'entity' } },
              dependency: { kind: 'type' },
            },
          },
          // The ORM's list of entities names every module's.
          {
            from: { file: { categories: 'entities' } },
            allow: { to: { element: { type: 'module' }, file: { categories: 'entity' } } },
          },
          {
            from: { element: { type: 'http' } },
            allow: { to: { element: { types: { anyOf: ['core', 'db', 'module', 'openapi'] } } } },
          },
          // The OpenAPI document is built from the contract alone.
          {
            from: { element: { type: 'openapi' } },
            allow: { to: { element: { type: 'openapi' } } },
          },
          // The logger redacts the configuration's secrets.
          {
            from: { element: { type: 'http' } },
            allow: { to: { file: { categories: 'config' } } },
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/.turbo/**',
      '**/coverage/**',
      '.data/**',
      // A user's program on the built SDK: `pnpm size` type-checks it (after the build) to weigh
      // the SDK's types; linting it before the build would see no types at all.
      'packages/sdk/type-weight/**',
      // Programs on a client generated from the served OpenAPI document, which exists only while
      // the document's test runs; the test type-checks them.
      'apps/api/test/openapi/generated-client/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      // Say what is known instead of asserting it, and drop checks the types already rule out.
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unnecessary-condition': 'error',
      // Only config.ts reads the environment; everything else receives parsed configuration.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through config.ts.' },
      ],
    },
  },
  { files: [`${API}/**/*.ts`], ...apiLayers },
  // Tests may reach any layer to set up what they check.
  { files: [`${API}/**/*.test.ts`], rules: { 'boundaries/dependencies': 'off' } },
  {
    files: [
      '**/config.ts',
      '**/test/**',
      '**/e2e/**',
      '**/*.test.ts',
      '**/*.config.ts',
      '**/scripts/**',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
