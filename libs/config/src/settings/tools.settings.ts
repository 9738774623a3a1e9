import { OnOff, WholeNumber } from '../setting-kinds';

/** The web tool, MCP tools and the threads that parse untrusted content. */
export class ToolSettings {
  /** The `web` tool gives up on a fetch (all redirects included) after this long. */
  @WholeNumber({ min: 100 })
  webToolTimeoutMs = 15000;

  /** The `web` tool reads at most this many bytes of a body (after decompression). */
  @WholeNumber({ min: 1024 })
  webToolMaxBytes = 2097152;

  /** Characters of readable text the `web` tool gives the model at most. */
  @WholeNumber({ min: 100 })
  webToolMaxChars = 20000;

  @WholeNumber({ min: 0, max: 20 })
  webToolMaxRedirects = 5;

  /** Lets the `web` tool reach private, loopback and link-local addresses (tests, trusted networks only). */
  @OnOff()
  webToolAllowPrivate = false;

  /** Time to start an MCP server (or reach it) and list its tools. */
  @WholeNumber({ min: 100 })
  mcpConnectTimeoutMs = 15000;

  /** Time one MCP tool call may take. */
  @WholeNumber({ min: 100 })
  mcpCallTimeoutMs = 60000;

  /** An MCP connection unused for this long is closed (its stdio server stopped). */
  @WholeNumber({ min: 1000 })
  mcpIdleCloseMs = 600000;

  /**
   * Lets agents' remote MCP servers be on private, loopback and link-local addresses: for a deployment whose MCP
   * servers are on its own network (and tests) only, since any tenant may then reach that network.
   */
  @OnOff()
  mcpAllowPrivate = false;

  /**
   * Worker threads of a process that parse untrusted content (web pages, attachments, documents of sources)
   * off its event loop.
   */
  @WholeNumber({ min: 1, max: 64 })
  parseThreads = 2;

  /** Heap limit of one parsing thread, in MiB: a parse that needs more fails, the process lives on. */
  @WholeNumber({ min: 32 })
  parseThreadMemoryMb = 256;

  /** A web page or an attachment that takes longer than this to parse fails, and its thread is terminated. */
  @WholeNumber({ min: 100 })
  parseTimeoutMs = 10000;
}
