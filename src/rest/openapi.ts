import type { GraphQLSchema } from 'graphql';

// Placeholder until the OpenAPI fix-up lands (see issue 2): replaced by the generated document.
export function openApiDocument(_schema: GraphQLSchema): unknown {
  return { openapi: '3.0.3' };
}

export function docsHtml(): string {
  return '<!doctype html><title>Commerce API v0</title>';
}
