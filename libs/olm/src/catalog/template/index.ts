// Catalog templates, as opm's `alpha/template`: basic, semver and substitutes, rendered into declarative config.
export {
  renderSubstitutesTemplate,
  SCHEMA_SUBSTITUTES_TEMPLATE,
  type Substitution,
} from './substitutes-template.js';
export {
  parseSemverTemplate,
  type RenderedBundles,
  type RenderTemplateOptions,
  readTemplate,
  renderBasicTemplate,
  renderSemverTemplate,
  renderTemplate,
  SCHEMA_BASIC_TEMPLATE,
  SCHEMA_SEMVER_TEMPLATE,
  type SemverTemplate,
  type TemplateDocument,
  type TemplateInput,
} from './templates.js';
