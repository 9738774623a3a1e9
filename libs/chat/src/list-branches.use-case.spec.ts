import { MessageEntity } from '@app/persistence';
import { branchesOf } from './list-branches.use-case';

/** Messages in position order, each `[id, parent id]`, stored a second apart. */
function tree(...rows: [string, string | null][]): MessageEntity[] {
  return rows.map(([id, parentId], position) =>
    Object.assign(new MessageEntity(), {
      id,
      parentId,
      position,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, position)),
    }),
  );
}

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

describe('branchesOf', () => {
  it('gives a thread that never branched one branch, forking nowhere, begun with its first message', () => {
    expect(branchesOf(tree(['u1', null], ['r1', 'u1'], ['u2', 'r1'], ['r2', 'u2']), 'r2')).toEqual([
      { leaf_message_id: 'r2', fork_message_id: null, created_at: at(0), active: true },
    ]);
  });

  it('forks a regenerated reply at its user message, and each branch at its nearest fork', () => {
    const messages = tree(
      ['u1', null],
      ['r1', 'u1'],
      ['u2', 'r1'],
      ['r2', 'u2'],
      ['r2b', 'u2'], // r2 regenerated
      ['u3', 'r1'], // u2 edited
      ['r3', 'u3'],
      ['u1b', null], // the first message edited
      ['r1b', 'u1b'],
    );
    expect(branchesOf(messages, 'r3')).toEqual([
      { leaf_message_id: 'r2', fork_message_id: 'u2', created_at: at(3), active: false },
      { leaf_message_id: 'r2b', fork_message_id: 'u2', created_at: at(4), active: false },
      { leaf_message_id: 'r3', fork_message_id: 'r1', created_at: at(5), active: true },
      { leaf_message_id: 'r1b', fork_message_id: null, created_at: at(7), active: false },
    ]);
  });
});
