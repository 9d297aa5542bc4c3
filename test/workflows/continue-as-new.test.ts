import { shouldContinueAsNew } from '../../src/workflows/continue-as-new';

describe('when a workflow continues as new', () => {
  it('continues when the server suggests it, whatever the length of its history', () => {
    expect(shouldContinueAsNew({ historyLength: 10, continueAsNewSuggested: true })).toBe(true);
  });

  it('continues once its history reaches 5,000 events by default, not before', () => {
    expect(shouldContinueAsNew({ historyLength: 4_999, continueAsNewSuggested: false })).toBe(false);
    expect(shouldContinueAsNew({ historyLength: 5_000, continueAsNewSuggested: false })).toBe(true);
  });

  it('continues at the threshold its input sets', () => {
    expect(shouldContinueAsNew({ historyLength: 299, continueAsNewSuggested: false }, 300)).toBe(false);
    expect(shouldContinueAsNew({ historyLength: 300, continueAsNewSuggested: false }, 300)).toBe(true);
  });
});
