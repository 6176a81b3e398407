import { PACKAGE_NAME } from '../../vocabulary/index.js';
import { ts } from './typescript.js';
import { membersAdded } from './member-edits.js';
import { readImplementerFacts, syntaxError } from './read-implementer-facts.js';
import { StorageResolver } from './storage-resolver.js';
import { decideUpgrades } from './shape-decision.js';
import { refusalsForSubclassesElsewhere } from './subclasses-in-other-files.js';
import { upgradeFileText } from './upgrade-file-text.js';
import { NEVER_TOUCHED } from './upgrade-data.js';

/** The part of jscodeshift's file argument the transform reads. */
export interface TransformFile {
  readonly path: string;
  readonly source: string;
}

/** The part of jscodeshift's API the transform uses: `report` for skipped implementers, `stats` for shapes. */
export interface TransformApi {
  readonly report?: (message: string) => void;
  readonly stats?: (name: string, quantity?: number) => void;
}

const BOM = '\uFEFF';

/** What `checkpoint-fencing` resolves to in a one-file program: all the resolver needs is its storage interface. */
const PACKAGE_STAND_IN = ts.createSourceFile(
  `/${PACKAGE_NAME}/index.d.ts`,
  'export interface CheckpointStorage {}',
  ts.ScriptTarget.Latest,
);
const STAND_IN_MODULE = { resolvedFileName: PACKAGE_STAND_IN.fileName, extension: ts.Extension.Dts };

/**
 * The add-write-conditions recipe as a jscodeshift transform (run by `../jscodeshift.cts`), one file at a time. It
 * parses with TypeScript's parser, whatever `--parser` says, so offsets are those of the text (CRLF, tabs included).
 */
export default function addWriteConditions(file: TransformFile, api: TransformApi): string | undefined {
  if (NEVER_TOUCHED.test(file.path) || !file.source.includes('CheckpointStorage')) {
    return undefined;
  }
  const bom = file.source.startsWith(BOM) ? BOM : '';
  const text = file.source.slice(bom.length);
  // The script kind (JSX or not, JavaScript or TypeScript) follows the file's extension.
  const sourceFile = ts.createSourceFile(file.path, text, ts.ScriptTarget.Latest, true);
  // A program of the file alone, where every import but `checkpoint-fencing` stays unresolved.
  const options = { noLib: true, noEmit: true, allowJs: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.getSourceFile = (name) => (name === PACKAGE_STAND_IN.fileName ? PACKAGE_STAND_IN : sourceFile);
  host.resolveModuleNameLiterals = (literals) =>
    literals.map(({ text: name }) => ({ resolvedModule: name === PACKAGE_NAME ? STAND_IN_MODULE : undefined }));
  const program = ts.createProgram({ rootNames: [file.path], options, host });
  const [problem] = program.getSyntacticDiagnostics(sourceFile);
  if (problem !== undefined) {
    throw syntaxError(sourceFile, problem);
  }
  const resolver = new StorageResolver(program.getTypeChecker(), [PACKAGE_STAND_IN], 'another-file');
  const facts = readImplementerFacts(sourceFile, resolver);
  const decisions = decideUpgrades(
    facts.implementers,
    refusalsForSubclassesElsewhere(file.path, decideUpgrades(facts.implementers)),
  );
  for (const decision of decisions) {
    if (decision.skipReason !== undefined) {
      api.report?.(`skipped ${decision.implementer.name} (line ${decision.implementer.line}): ${decision.skipReason}`);
    } else if (membersAdded(decision).length > 0) {
      api.stats?.(`${decision.saveShape} shape`);
    }
  }
  const upgraded = upgradeFileText(facts, decisions).text;
  return upgraded === text ? undefined : bom + upgraded;
}
