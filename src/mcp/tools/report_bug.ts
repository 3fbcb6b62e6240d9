import { feedbackTool } from '../feedback.js';

export const reportBug = feedbackTool('report_bug', 'bug', {
  title: 'Report a bug',
  description:
    'Reports a bug in this service to its operators: title (required), what_happened, expected, tool_name, detail.',
  words: { what_happened: 'what went wrong', expected: 'what you expected instead' },
});
