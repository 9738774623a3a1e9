import { Body, Controller, Delete, Get, HttpCode, Put, Query } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
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

/** Long-term memory files (API-SPEC 4.5, CONTRACTS §7). `user_id` is accepted and never picks the namespace. */
@ApiTags('memory')
@ApiSecurity('service-token')
@Controller('memory')
export class MemoryController {
  constructor(
    private readonly readFile: ReadMemoryFile,
    private readonly writeFile: WriteMemoryFile,
    private readonly listFiles: ListMemoryFiles,
    private readonly deleteFile: DeleteMemoryFile,
  ) {}

  @Get('file')
  read(@CurrentCaller() caller: Caller, @Query() query: MemoryFileQuery): Promise<MemoryFileResponse> {
    return this.readFile.execute(caller, query);
  }

  @Put('file')
  write(@CurrentCaller() caller: Caller, @Body() body: WriteMemoryFileDto): Promise<MemoryFileResponse> {
    return this.writeFile.execute(caller, body);
  }

  @Get('files')
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: MemoryFilesQuery,
  ): Promise<MemoryFileSummaryResponse[]> {
    return this.listFiles.execute(caller, query);
  }

  @Delete('file')
  @HttpCode(204)
  delete(@CurrentCaller() caller: Caller, @Query() query: MemoryFileQuery): Promise<void> {
    return this.deleteFile.execute(caller, query);
  }
}
