'use strict';
// tool.definition: the advisor tool as offered to the main agent.

const { MAX_FILES } = require('./shape');

function toolDefinition() {
  return {
    name: 'advisor',
    description:
      'Ask a stronger model for a second opinion on your work so far. The advisor sees this whole conversation ' +
      '(your messages, tool calls and results), plus the files you name and your question. It cannot run tools. ' +
      'Use it before a risky or hard-to-undo step, when you are stuck, or to check a plan. Calls are limited per run.',
    input_schema: {
      type: 'object',
      properties: {
        question: {
          type: 'string',
          description: 'What you want advice on. Optional; without it the advisor reviews the situation as a whole.',
        },
        files: {
          type: 'array',
          items: { type: 'string' },
          description: `Paths of files (relative to the working directory) to show the advisor, at most ${MAX_FILES}. ` +
            'Files you already read in full and have not changed are not sent twice.',
        },
      },
      additionalProperties: false,
    },
  };
}

module.exports = { toolDefinition };
