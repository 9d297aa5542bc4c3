/**
 * Prettier keeps lines within the project's 160-character limit. Single quotes and trailing commas
 * everywhere (Prettier's default) are the project's habits; YAML keeps double quotes, as the pipeline
 * examples and their docs write them.
 */
export default {
  printWidth: 160,
  singleQuote: true,
  overrides: [{ files: ['*.yaml', '*.yml'], options: { singleQuote: false } }],
};
