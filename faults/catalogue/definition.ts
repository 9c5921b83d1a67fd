/**
 * The shape of a catalogue entry; its own module so that the catalogue files and faults/index.ts
 * form no cycle.
 */
export interface FaultDefinition {
  /** `<requirement id>:<short name>`. */
  readonly id: string;
  /** What the fault breaks, in a sentence. */
  readonly breaks: string;
}
