/**
 * The server's lifecycle is the {@link ShutdownCoordinator}: modules that own processes or clients (validation
 * commands, graph MCP servers, file watchers) register their cleanup with `onShutdown`; every transport ends through
 * `beginShutdown`. `Lifecycle` is the name the modules' registrations use.
 */
export { ShutdownCoordinator as Lifecycle } from './shutdown-coordinator';
export type { ShutdownCoordinator } from './shutdown-coordinator';
