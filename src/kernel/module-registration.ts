import type { DependencyContainer } from 'tsyringe';
import type { AppConfig } from './config/app-config';

/**
 * Registers one module's ports, services and use cases on a container. Each module exports one from its index.ts
 * (loading its wiring lazily, so a server answers `tools/list` before any module is loaded); src/server lists them.
 */
export type ModuleRegistration = (container: DependencyContainer, config: AppConfig) => void;
