/**
 * One mapping[] endpoint: check its security, read the request, convert it, forward it to the
 * platform, answer in the configured response variant. Status codes: 401 refused credentials, 400
 * unreadable body or no device name, 415 unsupported media type, 503 platform did not take the
 * data, 408 no remote answer in time, 500 converter failure, 200 otherwise.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AUTHORIZATION_STEPS, authorization, type AuthorizationSteps } from './basic-auth';
import type { EndpointConfig } from './config-types';
import type { ConvertedData } from './converted';
import { ConversionRefusedError, type UplinkConverter } from './converted';
import { PlatformForwardError, type PlatformLink } from './platform-link';
import { readRequestData, RequestBodyError, UncaughtBodyError } from './request-data';
import type { RemoteResponses } from './remote-responses';
import { pythonText } from './python-text';
import type { ConnectorQuirks } from './quirks';
import { answer, answerRemote, send, SERVER_ERROR_PAGE } from './responses';

export const WWW_AUTHENTICATE = { 'www-authenticate': 'Basic realm="iotc REST connector"' };

interface EndpointContext {
  link: PlatformLink;
  remote: RemoteResponses;
  logger: Logger;
  quirks: ConnectorQuirks;
  /**
   * This handler's steps and the admission check's, with the active faults (index.ts); the plain
   * ones else.
   */
  steps?: MappingEndpointSteps;
  authorization?: AuthorizationSteps;
}

/** The mapping endpoint's steps (steps.ts); step-faults.ts wraps them. */
export interface MappingEndpointSteps {
  /** A refused request: its body is left unread and the refusal answered. */
  refused(
    request: IncomingMessage,
    forwardAnyway: () => Promise<void>,
    answerRefusal: () => void,
  ): Promise<void>;
  /** The converted data to the platform. */
  forward(link: PlatformLink, converted: ConvertedData): Promise<void>;
}

export const MAPPING_ENDPOINT_STEPS: MappingEndpointSteps = {
  refused: async (request, _forwardAnyway, answerRefusal) => {
    request.resume();
    answerRefusal();
  },
  forward: (link, converted) => link.forward(converted),
};

export function mappingHandler(
  endpoint: EndpointConfig,
  converter: UplinkConverter,
  context: EndpointContext,
) {
  const { response } = endpoint;
  const steps = context.steps ?? MAPPING_ENDPOINT_STEPS;
  const authorizationSteps = context.authorization ?? AUTHORIZATION_STEPS;
  return async (request: IncomingMessage, url: URL, reply: ServerResponse): Promise<void> => {
    const admission = authorization(endpoint.security, request.headers, authorizationSteps);
    if (admission !== 'admitted') {
      const forwardAnyway = async () => {
        const data = await readRequestData(request, url, {
          rawBody: endpoint.converter.type === 'custom',
          logger: context.logger,
        }).catch(() => undefined);
        if (data) await context.link.forward(await converter.convert(data)).catch(() => undefined);
      };
      return steps.refused(request, forwardAnyway, () => {
        if (admission === 'malformed' && context.quirks.malformedAuthorizationStatus === 500) {
          if (context.quirks.errorPagesOfTheServer)
            send(reply, 500, SERVER_ERROR_PAGE, 'text/plain; charset=utf-8');
          else answer(reply, 500, response);
        } else answer(reply, 401, response, WWW_AUTHENTICATE);
      });
    }
    let remoteWait: ReturnType<RemoteResponses['expect']> | undefined;
    try {
      const data = await readRequestData(request, url, {
        rawBody: endpoint.converter.type === 'custom',
        refuseBinary: context.quirks.binaryBodiesRefused,
        nonObjectUncaught: context.quirks.errorPagesOfTheServer,
        logger: context.logger,
      });
      const converted = await converter.convert(data);
      if (response.kind === 'remote')
        remoteWait = context.remote.expect(converted.deviceName, response.responseAttribute);
      await steps.forward(context.link, converted);
      if (response.kind !== 'remote' || !remoteWait) return answer(reply, 200, response);
      const value = await remoteWait.wait(response.timeoutSec);
      if (value === undefined) return answer(reply, 408, response);
      return context.quirks.remoteAnswerAsPythonText
        ? send(reply, 200, pythonText(value), 'text/plain; charset=utf-8')
        : answerRemote(reply, value);
    } catch (error) {
      remoteWait?.cancel();
      if (error instanceof UncaughtBodyError)
        return send(reply, 500, SERVER_ERROR_PAGE, 'text/plain; charset=utf-8');
      const status =
        error instanceof RequestBodyError
          ? error.status
          : error instanceof ConversionRefusedError
            ? 400
            : error instanceof PlatformForwardError
              ? 503
              : 500;
      context.logger[status === 500 ? 'error' : 'info'](
        { endpoint: endpoint.endpoint, status, error: (error as Error).message },
        'request not converted',
      );
      return answer(reply, status, response);
    }
  };
}
