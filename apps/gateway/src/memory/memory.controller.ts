import { Body, Delete, Get, HttpCode, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import {
  MemoryFileQuery,
  MemoryFileResponse,
  MemoryFilesQuery,
  MemoryFileSummaryResponse,
  WriteMemoryFileDto,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { DeleteMemoryFile, ListMemoryFiles, ReadMemoryFile, WriteMemoryFile } from '@app/memory';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { ApiErrors } from '../http/api-errors';

/** Long-term memory files (API-SPEC 4.5, CONTRACTS §7). `user_id` is accepted and never picks the namespace. */
@ServiceApiController('memory', 'memory')
export class MemoryController {
  constructor(
    private readonly readFile: ReadMemoryFile,
    private readonly writeFile: WriteMemoryFile,
    private readonly listFiles: ListMemoryFiles,
    private readonly deleteFile: DeleteMemoryFile,
  ) {}

  @Get('file')
  @ApiOperation({ summary: 'Read a memory file with its content' })
  @ApiOkResponse({ type: MemoryFileResponse })
  @ApiErrors([400, 404], { 400: 'Missing namespace.' })
  read(@CurrentCaller() caller: Caller, @Query() query: MemoryFileQuery): Promise<MemoryFileResponse> {
    return this.readFile.execute(caller, query);
  }

  @Put('file')
  @ApiOperation({
    summary: 'Create or update a memory file',
    description:
      'Without version: creates the file. With version: updates it, provided version is the one last read; ' +
      'otherwise 409 and nothing is written.',
  })
  @ApiOkResponse({ type: MemoryFileResponse, description: 'The stored file with its new version.' })
  @ApiErrors([400, 404, 409, 413], {
    400: 'Missing namespace.',
    404: 'A version was given and there is no such file.',
    409: 'version is not the latest: read again.',
  })
  write(@CurrentCaller() caller: Caller, @Body() body: WriteMemoryFileDto): Promise<MemoryFileResponse> {
    return this.writeFile.execute(caller, body);
  }

  @Get('files')
  @ApiOperation({ summary: 'List the files of a namespace or of one folder, without content' })
  @ApiOkResponse({ type: [MemoryFileSummaryResponse] })
  @ApiErrors([400], { 400: 'Missing namespace.' })
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: MemoryFilesQuery,
  ): Promise<MemoryFileSummaryResponse[]> {
    return this.listFiles.execute(caller, query);
  }

  @Delete('file')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a memory file' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors([400, 404], { 400: 'Missing namespace.' })
  delete(@CurrentCaller() caller: Caller, @Query() query: MemoryFileQuery): Promise<void> {
    return this.deleteFile.execute(caller, query);
  }
}
