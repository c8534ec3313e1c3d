import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed documents for the operation files the tests run (`npm run generate` runs this config).
const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['test/graphql/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'test/generated/graphql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        importExtension: '.js',
        useTypeImports: true,
        enumsAsTypes: true,
        strictScalars: true,
        scalars: { JSON: 'unknown', PageSize: 'number', Timestamp: 'number', UUID: 'string' },
      },
    },
  },
};

export default config;
