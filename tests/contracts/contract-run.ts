/**
 * What one run of a contract suite registered and met, so the adapter's test file can check it ran the suite it
 * meant to: the case titles the suite registered (jest's `it`, counted), and the class of every adapter a case was
 * handed (recorded as the cases run). A suite calls `run.it` instead of `it` and `run.met(adapter)` on each adapter
 * its factory makes, and returns the run.
 */
export class ContractRun {
  readonly cases: string[] = [];
  readonly adapters = new Set<string>();

  constructor(readonly suite: string) {}

  /** jest's `it`, recording the case's title. */
  readonly it = (title: string, fn: jest.ProvidesCallback, timeout?: number): void => {
    this.cases.push(title);
    it(title, fn, timeout);
  };

  /** Records the class of the adapter a case got; returns it unchanged. */
  met<T extends object>(adapter: T): T {
    this.adapters.add(adapter.constructor.name);
    return adapter;
  }
}
