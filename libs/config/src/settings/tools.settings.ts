import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { toBool, toInt } from '../setting-problems';

/** The web tool, MCP tools and the threads that parse untrusted content. */
export class ToolSettings {
  /** The `web` tool gives up on a fetch (all redirects included) after this long. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  webToolTimeoutMs = 15000;

  /** The `web` tool reads at most this many bytes of a body (after decompression). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  webToolMaxBytes = 2097152;

  /** Characters of readable text the `web` tool gives the model at most. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  webToolMaxChars = 20000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(20)
  webToolMaxRedirects = 5;

  /** Lets the `web` tool reach private, loopback and link-local addresses (tests, trusted networks only). */
  @Transform(toBool)
  @IsBoolean()
  webToolAllowPrivate = false;

  /** Time to start an MCP server (or reach it) and list its tools. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  mcpConnectTimeoutMs = 15000;

  /** Time one MCP tool call may take. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  mcpCallTimeoutMs = 60000;

  /** An MCP connection unused for this long is closed (its stdio server stopped). */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  mcpIdleCloseMs = 600000;

  /**
   * Lets agents' remote MCP servers be on private, loopback and link-local addresses: for a deployment whose MCP
   * servers are on its own network (and tests) only, since any tenant may then reach that network.
   */
  @Transform(toBool)
  @IsBoolean()
  mcpAllowPrivate = false;

  /**
   * Worker threads of a process that parse untrusted content (web pages, attachments, documents of sources)
   * off its event loop.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  parseThreads = 2;

  /** Heap limit of one parsing thread, in MiB: a parse that needs more fails, the process lives on. */
  @Transform(toInt)
  @IsInt()
  @Min(32)
  parseThreadMemoryMb = 256;

  /** A web page or an attachment that takes longer than this to parse fails, and its thread is terminated. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  parseTimeoutMs = 10000;
}
