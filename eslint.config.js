// Lint rules that encode the folder table of docs/architecture.md: each layer imports only the
// layers below it, so a wrong dependency fails CI instead of growing quietly.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** An import that leaves the file's folder for one of these top-level folders of src/. */
const into = (...folders) => ({
  regex: `^(\\.\\./)+(${folders.join('|')})/`,
  message: `this layer may not import ${folders.join(', ')} (see the folder table in docs/architecture.md)`,
});
const restrict = (files, ...patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // tsc's noUnusedLocals/Parameters already report these, with the compiler's exceptions
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  {
    // chai's property assertions (`expect(x).to.be.true`) are expressions; tests read untyped tool output
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  // domain: pure, nothing of ours outside src/domain (its files sit one folder deep)
  restrict(['src/domain/**/*.ts'], {
    regex: '^\\.\\./\\.\\./',
    message: 'the domain imports nothing outside src/domain',
  }),
  // the event store and infra: ports and plumbing, nothing of ours
  restrict(['src/eventstore/**/*.ts', 'src/infra/**/*.ts'], {
    regex: '^\\.\\./',
    message: 'this layer imports nothing of ours outside its own folder',
  }),
  restrict(['src/projections/**/*.ts'], into('commands', 'workers', 'mcp', 'runtime', 'marketplace')),
  restrict(['src/commands/**/*.ts'], into('workers', 'mcp', 'runtime', 'marketplace')),
  restrict(['src/marketplace/**/*.ts'], into('commands', 'workers', 'mcp', 'runtime', 'projections', 'eventstore')),
  restrict(['src/workers/**/*.ts'], into('mcp', 'runtime')),
  restrict(['src/runtime/**/*.ts'], into('workers', 'mcp', 'marketplace')),
);
