import { feedbackTool } from '../feedback.js';

export const suggestIdea = feedbackTool('suggest_idea', 'idea', {
  title: 'Suggest an idea',
  description:
    'Suggests an improvement to this service to its operators: title (required), what_happened (the current limitation), expected (the capability you want), tool_name, detail.',
  words: { what_happened: 'the current limitation', expected: 'the capability you want' },
});
