/**
 * Which faults a kill matrix run judges (the reference's and the clients' under test, narrowed by
 * --faults and --requirements) and which testable requirements in its scope have none.
 */
import { FAULT_CATALOGUE, faultRequirement } from '../../faults';
import { CLIENT_FAULT_CATALOGUE } from '../../faults/client-catalogue';
import { ROLES, type Requirement } from '../../schemas';
import { IotcError } from '../../lib/errors';
import { loadCatalogue } from '../report/conformance';
import type { MatrixOptions, MatrixResult } from './matrix-types';

/** `iotc faults --faults` or `--requirements` selects nothing the kill matrix knows. */
export class MatrixSelectionError extends IotcError {
  readonly code = 'IOTC_FAULT_SELECTION';
}

/** The selected faults of the reference; an id in neither catalogue is refused. */
export function selectFaults(options: MatrixOptions) {
  const known = new Set<string>(
    [...FAULT_CATALOGUE, ...CLIENT_FAULT_CATALOGUE].map((fault) => fault.id),
  );
  const unknown = (options.faults ?? []).filter((id) => !known.has(id));
  if (unknown.length)
    throw new MatrixSelectionError(
      `unknown fault ${unknown.join(', ')}: the catalogue is faults/catalogue/ and faults/client-catalogue.ts`,
    );
  return FAULT_CATALOGUE.filter((fault) => selected(options, fault.id));
}

/** The selected faults of the clients under test. */
function selectClientFaults(options: MatrixOptions) {
  return CLIENT_FAULT_CATALOGUE.filter((fault) => selected(options, fault.id));
}

/** Both selections; a filter that selects nothing in either is refused. */
export function selectAll(options: MatrixOptions) {
  const reference = selectFaults(options);
  const clients = selectClientFaults(options);
  if (
    reference.length + clients.length === 0 &&
    (options.faults?.length || options.requirements?.length)
  )
    throw new MatrixSelectionError(
      `no fault of the catalogue matches --faults ${options.faults?.join(',') ?? '-'} --requirements ${options.requirements?.join(',') ?? '-'}`,
    );
  return { reference, clients };
}

function selected(options: MatrixOptions, id: string): boolean {
  return (
    (!options.faults?.length || options.faults.includes(id)) &&
    (!options.requirements?.length || options.requirements.includes(faultRequirement(id)))
  );
}

/** Every requirement of the catalogue, of every role (the reference's and the clients'). */
export function allRequirements(): Requirement[] {
  return loadCatalogue(undefined, ROLES);
}

/**
 * Testable requirements in the selection's scope (every role) without a fault in either catalogue.
 */
export function uncoveredRequirements(options: MatrixOptions): MatrixResult['uncovered'] {
  const covered = new Set(
    [...FAULT_CATALOGUE, ...CLIENT_FAULT_CATALOGUE].map((fault) => faultRequirement(fault.id)),
  );
  const inScope = (requirement: Requirement) =>
    options.faults?.length
      ? false // a list of faults says nothing about the requirements without one
      : options.requirements?.length
        ? options.requirements.includes(requirement.id)
        : true;
  return allRequirements()
    .filter((requirement) => requirement.testable && inScope(requirement))
    .filter((requirement) => !covered.has(requirement.id))
    .map(({ id, interface: name, statement }) => ({ id, interface: name, statement }));
}
