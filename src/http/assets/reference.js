// The API reference at /docs: Redoc (its own bundle, /assets/redoc.standalone.js) renders the
// OpenAPI document the server serves at /openapi.json. Nothing is fetched from another origin.
/* global Redoc */
Redoc.init(
  '/openapi.json',
  {
    expandResponses: '200,201',
    hideHostname: true,
    jsonSampleExpandLevel: 3,
    sortTagsAlphabetically: false,
    theme: {
      typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } },
    },
  },
  document.getElementById('reference'),
);
