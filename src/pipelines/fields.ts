import { z } from 'zod';
import { hasTemplate, parseTemplate, TemplateError } from '../shared/template';

/** A string that may hold `{{ ... }}` expressions; malformed ones are refused with the parser's reason. */
export const templateText = z.string().superRefine((text, ctx) => {
  try {
    parseTemplate(text);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
  }
});

/** A URL, or a template that renders to one per item (checked again after rendering). */
export const urlOrTemplate = templateText.refine(
  (text) => hasTemplate(text) || z.url().safeParse(text).success,
  'must be a URL or a template such as {{ item.website }}',
);

/** Pipeline and parameter names: they end up in workflow ids, search attributes and template paths. */
export const pipelineName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1 to 63 lower-case letters, digits and dashes, starting with a letter or digit');
export const parameterName = z
  .string()
  .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be lower-case letters, digits and underscores, starting with a letter or underscore');

/** A file path relative to the definition (inputs) or to the run's output folder (outputs): no escaping upwards. */
export const relativeFile = z
  .string()
  .min(1, 'must not be empty')
  .refine(
    (path) => !path.startsWith('/') && !/^[A-Za-z]:/.test(path) && !path.split(/[\\/]/).includes('..'),
    'must be a relative path that stays inside its folder (no leading / and no ..)',
  );

/** A `YYYY-MM-DD` date, or a template that renders to one per item (checked again after rendering). */
export const dateOrTemplate = templateText.refine(
  (text) => hasTemplate(text) || z.iso.date().safeParse(text).success,
  'must be a date in YYYY-MM-DD form or a template such as {{ params.since }}',
);
