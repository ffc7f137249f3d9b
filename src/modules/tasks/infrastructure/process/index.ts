export * from './shell-command-runner';
export * from './running-commands';
export * from './tail-buffer';
export * from './host-info';
