/** A promise the test opens by hand: a handler or a storage call waits on `opened` until `open()` is called. */
export class Gate {
  readonly opened: Promise<void>;
  #open: () => void = () => undefined;

  constructor() {
    this.opened = new Promise<void>((resolve) => {
      this.#open = resolve;
    });
  }

  /** Lets every waiter on `opened` go on; later calls change nothing. */
  open(): void {
    this.#open();
  }
}
