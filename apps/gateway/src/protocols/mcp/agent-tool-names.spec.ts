import { agentToolDescription, agentToolNames, NamedAgent } from './agent-tool-names';

const agent = (id: string, name: string, description = ''): NamedAgent => ({ id, name, description });
const namesOf = (agents: NamedAgent[]) =>
  [...agentToolNames(agents).entries()].map(([name, a]) => [name, a.id]);

describe('agentToolNames', () => {
  it('lower-cases the name and makes every run of other characters one underscore', () => {
    expect(namesOf([agent('1', 'Support Bot (EU) v2.1'), agent('2', 'ops-helper_x')])).toEqual([
      ['support_bot_eu_v2_1', '1'],
      ['ops-helper_x', '2'],
    ]);
  });

  it('cuts a long name to 64 characters', () => {
    const [[name]] = namesOf([agent('1', 'a'.repeat(100))]);
    expect(name).toBe('a'.repeat(64));
  });

  it('numbers clashes _2, _3 in creation order, within 64 characters', () => {
    expect(namesOf([agent('1', 'Helper'), agent('2', 'helper'), agent('3', 'HELPER!')])).toEqual([
      ['helper', '1'],
      ['helper_2', '2'],
      ['helper_', '3'],
    ]);
    expect(namesOf([agent('1', 'x'), agent('2', 'x'), agent('3', 'x')]).map(([name]) => name)).toEqual([
      'x',
      'x_2',
      'x_3',
    ]);
    const long = namesOf([agent('1', 'b'.repeat(70)), agent('2', 'b'.repeat(80))]);
    expect(long[1][0]).toBe(`${'b'.repeat(62)}_2`);
  });

  it('skips a suffixed name another agent already has', () => {
    expect(namesOf([agent('1', 'a_2'), agent('2', 'a'), agent('3', 'a')]).map(([name]) => name)).toEqual([
      'a_2',
      'a',
      'a_3',
    ]);
  });
});

describe('agentToolDescription', () => {
  it("says whom it asks, then the agent's description, never its instructions", () => {
    expect(agentToolDescription(agent('1', 'Helper'))).toBe('Ask the agent Helper.');
    const withInstructions = {
      ...agent('1', 'Helper', 'Answers handbook questions.'),
      instructions: 'secret',
    };
    expect(agentToolDescription(withInstructions)).toBe('Ask the agent Helper. Answers handbook questions.');
  });
});
