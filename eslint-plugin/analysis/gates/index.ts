// The speed gates (ADRs 0308–0312): whether a file, a program or a name can hold anything a rule reports on, decided
// as cheaply as possible and before any recogniser runs. No gate imports a recogniser.
export * from './package-reach.js';
export * from './text-gates.js';
