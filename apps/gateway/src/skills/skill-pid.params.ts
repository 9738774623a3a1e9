import { IsString } from 'class-validator';
import { MaxChars } from '@app/contracts';

export class SkillPidParams {
  @IsString()
  @MaxChars(100)
  skill_pid: string;
}
