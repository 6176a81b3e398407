/** The `describe` and `it` a conformance kit takes, recording instead of registering with vitest. */
export interface CaseRecorder {
  readonly describe: (name: string, body: () => void) => void;
  readonly it: (name: string, body: () => Promise<void>) => void;
}

/**
 * Runs `register` (a kit call given the recorder) and returns its cases by their full name, `suite > section > case`,
 * so a test can run the kit against a deliberately broken implementation and see which cases fail.
 */
export function registeredCases(register: (recorder: CaseRecorder) => void): Map<string, () => Promise<void>> {
  const cases = new Map<string, () => Promise<void>>();
  const path: string[] = [];
  register({
    describe: (name, body) => {
      path.push(name);
      body();
      path.pop();
    },
    it: (name, body) => cases.set([...path, name].join(' > '), body),
  });
  return cases;
}

/** Runs every case one after the other; returns the names of those that failed, without the suite's own name. */
export async function failingCases(cases: ReadonlyMap<string, () => Promise<void>>): Promise<string[]> {
  const failing: string[] = [];
  for (const [name, body] of cases) {
    await body().catch(() => failing.push(name.slice(name.indexOf(' > ') + ' > '.length)));
  }
  return failing;
}
