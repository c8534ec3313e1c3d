import {
  GraphQLError,
  Kind,
  parse,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

// Limits on the GraphQL documents /graphql accepts, so one request cannot make the server parse,
// validate or resolve without bound. The numbers leave room for the standard introspection
// query (depth 15, about 220 fields, under 500 tokens) and anything the schema itself can answer.

export const QUERY_LIMITS = {
  /** Lexical tokens of the document: parsing stops past it. */
  tokens: 2_000,
  /** Nested selection sets of an operation, fragments expanded. */
  depth: 16,
  /** Field selections of an operation, fragments expanded (aliases count one each). */
  fields: 1_000,
} as const;

interface Measure {
  depth: number;
  fields: number;
}

/** Depth and field count of every operation, each fragment measured once (a cycle counts as empty). */
const queryShapeRule: ValidationRule = (context) => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measured = new Map<string, Measure>();
  const entered = new Set<string>();

  function measure(selectionSet: SelectionSetNode): Measure {
    let depth = 0;
    let fields = 0;
    for (const selection of selectionSet.selections) {
      let inner: Measure;
      if (selection.kind === Kind.FIELD) {
        inner = selection.selectionSet ? measure(selection.selectionSet) : { depth: 0, fields: 0 };
        depth = Math.max(depth, inner.depth + 1);
        fields += inner.fields + 1;
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = measure(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        // Unknown fragments and cycles are reported by graphql's own rules.
        if (!fragment || entered.has(name)) continue;
        if (!measured.has(name)) {
          entered.add(name);
          measured.set(name, measure(fragment.selectionSet));
          entered.delete(name);
        }
        inner = measured.get(name)!;
      }
      depth = Math.max(depth, inner.depth);
      fields += inner.fields;
    }
    return { depth, fields };
  }

  return {
    OperationDefinition(operation) {
      const { depth, fields } = measure(operation.selectionSet);
      if (depth > QUERY_LIMITS.depth) {
        context.reportError(new GraphQLError(`The operation nests selections ${depth} levels deep; at most ${QUERY_LIMITS.depth} are allowed`, { nodes: operation }));
      }
      if (fields > QUERY_LIMITS.fields) {
        context.reportError(new GraphQLError(`The operation selects ${fields} fields (fragments expanded); at most ${QUERY_LIMITS.fields} are allowed`, { nodes: operation }));
      }
      return false;
    },
  };
};

/** The yoga plugin: a token-limited parser and the shape rule. */
export function queryLimits(): Plugin {
  return {
    onParse: ({ setParseFn }) => setParseFn((source, options) => parse(source, { ...options, maxTokens: QUERY_LIMITS.tokens })),
    onValidate: ({ addValidationRule }) => addValidationRule(queryShapeRule),
  };
}
