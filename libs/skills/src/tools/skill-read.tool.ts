import { Injectable } from '@nestjs/common';
import { AgentTool, RunScope, ToolError, ToolSource } from '@app/agent';
import { SkillRepository, VisibleSkill } from '@app/persistence';

/** Active skills a run may use: those its end user sees (platform, organization, own private ones). */
async function activeSkillsFor(skills: SkillRepository, scope: RunScope): Promise<VisibleSkill[]> {
  const visible = await skills.listVisible({ orgId: scope.orgId, userId: scope.userId });
  return visible.filter((view) => view.active);
}

/**
 * `skill_read`: gives the model a skill's instructions when it decides to use one. While it is offered, the
 * run's system prompt lists the active skills in scope (name and description only).
 */
@Injectable()
export class SkillReadToolSource implements ToolSource {
  readonly permission = 'skill_read';

  constructor(private readonly skills: SkillRepository) {}

  async toolsFor(scope: RunScope): Promise<AgentTool[]> {
    const active = await activeSkillsFor(this.skills, scope);
    if (active.length === 0) return [];
    const catalogue = active
      .map((view) => `- ${view.skill.name}: ${view.skill.frontmatter.description}`)
      .join('\n');
    return [
      {
        name: 'skill_read',
        permission: 'skill_read',
        readOnly: true,
        description: 'Reads the instructions of a skill (by name) before using it.',
        systemPrompt: `Skills you can use: read one with skill_read when the task fits it.\n${catalogue}`,
        parameters: {
          type: 'object',
          properties: { name: { type: 'string', description: 'the skill name' } },
          required: ['name'],
          additionalProperties: false,
        },
        execute: async (args) => {
          const name = typeof args.name === 'string' ? args.name : '';
          // Re-read at call time: a skill switched off mid-run is no longer readable.
          const skill = (await activeSkillsFor(this.skills, scope)).find((view) => view.skill.name === name);
          if (!skill) throw new ToolError(`skill ${JSON.stringify(name)} is not available`);
          return {
            name: skill.skill.name,
            instructions: skill.skill.body,
            allowed_tools: skill.skill.frontmatter.allowed_tools ?? null,
          };
        },
      },
    ];
  }
}
