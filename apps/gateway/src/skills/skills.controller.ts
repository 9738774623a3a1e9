import { Body, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiConsumes,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  getSchemaPath,
} from '@nestjs/swagger';
import { RouteConfig } from '@nestjs/platform-fastify';
import { FastifyRequest } from 'fastify';
import {
  CreateSkillDto,
  EndUserQuery,
  RequiredEndUserQuery,
  SkillDetailResponse,
  SkillResponse,
  UpdateSkillDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';
import { endUserOf, requireEndUser } from '../http/end-user';
import { READS_MULTIPART } from '../http/other-bodies';
import { ReadOneRoute } from '../routes/resource-routes';
import { SkillPidParams } from './skill-pid.params';
import { readSkillUpload, SkillFileUpload } from './skill-upload';
import { CreateSkill } from './use-cases/create-skill.use-case';
import { DeleteSkill } from './use-cases/delete-skill.use-case';
import { GetSkill } from './use-cases/get-skill.use-case';
import { ListSkills } from './use-cases/list-skills.use-case';
import { UpdateSkill } from './use-cases/update-skill.use-case';

/** Skills (API-SPEC 4.8, CONTRACTS §11). */
@ServiceApiController('skills', 'skills')
export class SkillsController {
  constructor(
    private readonly createSkill: CreateSkill,
    private readonly listSkills: ListSkills,
    private readonly getSkill: GetSkill,
    private readonly updateSkill: UpdateSkill,
    private readonly deleteSkill: DeleteSkill,
  ) {}

  @Post()
  @HttpCode(200)
  @RouteConfig(READS_MULTIPART)
  @ApiOperation({
    summary: 'Create a custom skill from a SKILL.md',
    description: 'The SKILL.md as the multipart field file, or as JSON {"content"}.',
  })
  @ApiOkResponse({ type: SkillDetailResponse })
  @ApiErrors([400, 409, 413], { 409: 'A skill with this name already exists.' })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiExtraModels(CreateSkillDto, SkillFileUpload)
  // One schema serves both media types in @nestjs/swagger: the body is either form, as its description says.
  @ApiBody({
    description:
      'JSON {content} (CreateSkillDto), or multipart/form-data with the field file (SkillFileUpload)',
    schema: { oneOf: [{ $ref: getSchemaPath(CreateSkillDto) }, { $ref: getSchemaPath(SkillFileUpload) }] },
  })
  async create(
    @CurrentCaller() caller: Caller,
    @Req() request: FastifyRequest,
    @Query() query: RequiredEndUserQuery,
    // Untyped on purpose: a multipart body has no JSON to validate; readSkillUpload checks both forms.
    @Body() body: unknown,
  ): Promise<SkillDetailResponse> {
    const upload = await readSkillUpload(request, body);
    return this.createSkill.execute(caller, requireEndUser(query, { user_id: upload.userId }), upload);
  }

  @Get()
  @ApiOperation({ summary: 'List the skills in scope' })
  @ApiOkResponse({ type: [SkillResponse] })
  list(@CurrentCaller() caller: Caller, @Query() query: EndUserQuery): Promise<SkillResponse[]> {
    return this.listSkills.execute(caller, endUserOf(query));
  }

  @ReadOneRoute(':skill_pid', { summary: 'Get a skill with its SKILL.md' }, SkillDetailResponse)
  get(
    @CurrentCaller() caller: Caller,
    @Param() params: SkillPidParams,
    @Query() query: EndUserQuery,
  ): Promise<SkillDetailResponse> {
    return this.getSkill.execute(caller, endUserOf(query), params.skill_pid);
  }

  @Put(':skill_pid')
  @ApiOperation({
    summary: 'Update a skill',
    description:
      "Changing anything of a platform skill but active and scope needs x-internal-token equal to the service's " +
      'INTERNAL_TOKEN.',
  })
  @ApiHeader({ name: 'x-internal-token', required: false, schema: { type: 'string', nullable: true } })
  @ApiOkResponse({ type: SkillResponse })
  @ApiErrors([400, 403, 404, 413], { 403: 'A platform skill, and x-internal-token missing or wrong.' })
  update(
    @CurrentCaller() caller: Caller,
    @Param() params: SkillPidParams,
    @Query() query: EndUserQuery,
    @Body() body: UpdateSkillDto,
    @Headers('x-internal-token') internalToken?: string,
  ): Promise<SkillResponse> {
    return this.updateSkill.execute(caller, endUserOf(query, body), params.skill_pid, body, internalToken);
  }

  @Delete(':skill_pid')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a custom skill' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors([403, 404], { 403: 'Platform skills cannot be deleted; set active to false.' })
  async remove(
    @CurrentCaller() caller: Caller,
    @Param() params: SkillPidParams,
    @Query() query: EndUserQuery,
  ): Promise<void> {
    await this.deleteSkill.execute(caller, endUserOf(query), params.skill_pid);
  }
}
