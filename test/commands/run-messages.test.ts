import { budgetCommand, pauseResumeCommand, respondCommand } from '../../src/commands/runs';
import type { TemporalOpener } from '../../src/commands/common';
import { UsageError } from '../../src/shared/usage';

// A message the workflow would refuse is refused by the CLI first, as bad usage naming the option,
// with the same schema the workflow's update validator uses: Temporal is never contacted.
const io = { stdout: () => undefined, stderr: () => undefined };
const temporalNeverOpened: TemporalOpener = () => Promise.reject(new Error('Temporal was contacted'));

describe('rp budget, respond and pause check their message before sending it', () => {
  it.each([
    [{ add: 'abc' }, 'budget: --add: must be a number more than 0'],
    [{ add: '0' }, 'budget: --add: must be a number more than 0'],
    [{ set: '-3' }, 'budget: --set: must be a number more than 0'],
    [{ set: '1e400' }, 'budget: --set: must be a number more than 0'],
  ])('budget %j is bad usage', async (options, message) => {
    await expect(budgetCommand('p/r', options, io, temporalNeverOpened)).rejects.toEqual(new UsageError(message));
  });

  it('sends a good raise (and only then opens Temporal)', async () => {
    await expect(budgetCommand('p/r', { add: '2.5' }, io, temporalNeverOpened)).rejects.toThrow('Temporal was contacted');
  });

  it.each([
    ['"yes"', 'respond: --response: must be an object, e.g. {"approved": true}, got "yes"'],
    ['[{"approved": true}]', 'respond: --response: must be an object, e.g. {"approved": true}, got [{"approved":true}]'],
  ])('respond --response %s is bad usage', async (response, message) => {
    await expect(respondCommand('p/r', { item: 'a', interaction: 'int_1', response }, io, temporalNeverOpened)).rejects.toEqual(new UsageError(message));
  });

  it('pause takes any reason text', async () => {
    await expect(pauseResumeCommand('pause', 'p/r', { reason: 'lunch' }, io, temporalNeverOpened)).rejects.toThrow('Temporal was contacted');
  });
});
