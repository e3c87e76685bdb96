'use strict';
// The wording the spec leaves to each implementation (CHOICE), declared to
// the suite by `start`/`describe`, and what this implementation supports.

const STRINGS = Object.freeze({
  system_prompt:
    'You are an experienced software engineer acting as an advisor to an autonomous coding agent. ' +
    'What follows is the agent\'s conversation so far, with its tool calls and tool results written out as text. ' +
    'You cannot run tools yourself. Read the conversation closely and give the agent brief, concrete guidance: ' +
    'what looks right, what looks wrong or risky, and what it should do next. Say so plainly when you are unsure.',
  guidance_request:
    'Given all of the above, what should the agent do next? Name any mistakes or risks you see and suggest ' +
    'concrete next steps. Keep your answer short.',
  inflight_label: 'The agent\'s latest message, which is waiting for this advice:',
  advisor_note_prefix: '[advice you gave earlier in this session; it may be out of date, so revise it if things have changed]',
  deduped_file_notice:
    '(content not repeated: it is identical to the agent\'s most recent full read of this file in the conversation above)',
  line_truncation_marker: '\u2026[line cut]',
  budget_spent:
    'The advisor is not available any more: this run has used {used}/{max} of its advisor calls. ' +
    'Carry on with your own judgement.',
  no_content_note: 'The advisor returned an empty answer. Carry on with your own plan.',
  token_limit_note:
    '[The advisor\'s answer stopped at its token limit and may be incomplete; raise the advisor\'s max_tokens ' +
    'for complete answers.]',
});

const AREAS = Object.freeze([
  'transcript', 'request', 'flatten', 'elision', 'files', 'question', 'dedupe', 'inflight',
  'tool', 'workspace', 'handler', 'budget', 'transport', 'wire', 'streaming', 'breakpoints',
]);

const DESCRIPTION = Object.freeze({
  name: 'advisor-js',
  version: '0.1.0',
  language: 'javascript',
  protocol: 1,
  areas: AREAS,
  strings: STRINGS,
  // origin: <args-json> is Go's encoding byte for byte (lib/gojson.js);
  // confinement: runtime.confine_to_work_dir is honoured (lib/workspace.js).
  options: { args_json: 'origin', confinement: true },
  // home_dir: runtime.home_dir names what ~ stands for in blocked paths (lib/workspace.js).
  capabilities: { home_dir: true },
});

/** The budget-spent note with its counts filled in. */
function budgetNote(used, max) {
  return STRINGS.budget_spent.replace('{used}', String(used)).replace('{max}', String(max));
}

module.exports = { STRINGS, DESCRIPTION, budgetNote };
