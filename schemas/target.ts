/**
 * A target profile: where the platform under test is, how to log in, what it can do, and how it
 * knowingly differs from docs/reference/interfaces.md. Credentials are `${env:NAME}` references,
 * resolved at load and never written to reports.
 */
const credentialsSchema = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1 },
    password: { type: 'string', minLength: 1 },
  },
  additionalProperties: false,
} as const;

export const CAPABILITIES = [
  'mqtt5',
  'tenant-limits',
  'provisioning',
  'claiming',
  'firmware',
  'client-rpc',
  // v2 persistent server-side RPC: stored, queued, its status and the device's response read back
  // by id
  'persistent-rpc',
  'api-keys',
  'rest-connector',
  'analytics',
  // the system administrator may change the JWT settings (token lifetimes): disposable platforms
  // only
  'jwt-settings',
  // the robustness feature set (features/robustness/): oversized and nested payloads, slow readers,
  // half-open connections; opt-in, never for staging unless asked (it sends abusive traffic)
  'robustness',
] as const;

export const targetProfileSchema = {
  $id: 'iotc:target-profile',
  type: 'object',
  required: ['name', 'platform'],
  properties: {
    $schema: { type: 'string' },
    name: {
      description: 'The name reports and cleanup journals give the target.',
      type: 'string',
      minLength: 1,
    },
    description: { description: 'What the target is, for people.', type: 'string' },
    embedded: {
      description:
        'Start the reference platform in this process on free loopback ports and fill in its URLs.',
      type: 'boolean',
    },
    quirks: {
      description:
        "Embedded only: the reference reproduces this real version's known deviations (to test deviation profiles).",
      enum: ['thingsboard-4.3'],
    },
    asynchrony: {
      description:
        'Embedded only: the reference acknowledges first and acts later, as ThingsBoard (simulators/platform/core/scheduler.ts): subscriptions, gateway device sessions, claims and saves take effect after their SUBACK / PUBACK / 200, shared-attribute updates arrive late and may be reordered, an update before a subscription took effect is dropped. All delays come from one seeded scheduler; the seed is printed and recorded in conformance.json (run.twin) and replayed with IOTC_TWIN_SEED.',
      type: 'object',
      required: ['enabled'],
      properties: {
        enabled: { type: 'boolean' },
        seed: {
          description:
            'Replay this seed (IOTC_TWIN_SEED overrides it); absent: a new seed per run. Each parallel worker derives its own from it.',
          type: 'integer',
          minimum: 0,
          maximum: 4294967295,
        },
        maxDelayMs: {
          description:
            "Upper bound of each kind's delay (ms); a kind left out keeps ThingsBoard's measured bound (attribute updates 2000, the others 200-300). Smaller bounds shorten a run; they still race.",
          type: 'object',
          properties: {
            subscription: { type: 'integer', minimum: 0 },
            gatewaySession: { type: 'integer', minimum: 0 },
            gatewayRemoval: { type: 'integer', minimum: 0 },
            claim: { type: 'integer', minimum: 0 },
            save: { type: 'integer', minimum: 0 },
            attributeUpdate: { type: 'integer', minimum: 0 },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    connectorQuirks: {
      description:
        "Embedded only: the reference REST connector reproduces this real gateway version's known deviations (simulators/connector/quirks.ts).",
      enum: ['tb-gateway-3.8'],
    },
    deviationsFrom: {
      description:
        'Take the declared deviations of this built-in profile (its own deviations are added on top).',
      type: 'string',
      minLength: 1,
    },
    platform: {
      description: 'Where the platform under test is and how to log in to it.',
      type: 'object',
      properties: {
        http: {
          description: 'Base URL of the HTTP device API ({base_url}).',
          type: 'string',
          format: 'uri',
        },
        https: {
          description:
            'HTTPS base URL of the same HTTP device API, when http is plain HTTP (the platform accepts both).',
          type: 'string',
          format: 'uri',
        },
        tls: {
          description:
            'How drivers trust the TLS endpoints: a CA file, or explicitly no verification.',
          type: 'object',
          properties: {
            caFile: { type: 'string', minLength: 1 },
            insecureSkipVerify: { type: 'boolean' },
          },
          additionalProperties: false,
        },
        mqtt: {
          description: 'mqtt://host:port of the MQTT transport (device and gateway topics).',
          type: 'string',
          format: 'uri',
        },
        mqtts: {
          description: 'mqtts://host:port of the MQTT transport over TLS, trusted through tls.',
          type: 'string',
          format: 'uri',
        },
        adminUrl: {
          description: 'Base URL of the administration REST API; defaults to http.',
          type: 'string',
          format: 'uri',
        },
        tenantAdmin: {
          ...credentialsSchema,
          description:
            'Tenant administrator: creates the devices, profiles and packages a run tests.',
        },
        customerUser: {
          ...credentialsSchema,
          description: 'A customer user of the same tenant: claims devices (capability claiming).',
        },
        sysAdmin: {
          ...credentialsSchema,
          description:
            'System administrator: only for the tenant-limits capability (it changes the tenant profile) and the jwt-settings capability (it changes the token lifetimes).',
        },
        accessTokenLifetimeSec: {
          description:
            'JWT_TOKEN_EXPIRATION_TIME of the target (seconds); expiry scenarios run when it is short.',
          type: 'integer',
          minimum: 1,
        },
        refreshTokenLifetimeSec: {
          description: 'JWT_REFRESH_TOKEN_EXPIRATION_TIME of the target (seconds).',
          type: 'integer',
          minimum: 1,
        },
        shortestTokenLifetimesSec: {
          description:
            "The shortest token lifetimes (seconds) the target's JWT settings accept (capability jwt-settings): the expiry scenarios set these and wait them out. ThingsBoard refuses an access token under 60 s and a refresh token under 900 s (DefaultJwtSettingsValidator.java:42-47). Default: 2 and 6, which the reference accepts.",
          type: 'object',
          properties: {
            access: { type: 'integer', minimum: 1 },
            refresh: { type: 'integer', minimum: 2 },
          },
          required: ['access', 'refresh'],
          additionalProperties: false,
        },
        mqttConnectTimeoutMs: {
          description:
            'How long the MQTT transport waits for the CONNECT of a new connection before it closes it (default 10000). ThingsBoard has no such timeout (no idle handler in its MQTT pipeline; MQTT_TIMEOUT is the RPC delivery timeout, MqttTransportHandler.java:1555): its profiles declare the deviation ROB-CONN-02. The robustness scenario of a connection that never sends CONNECT waits this long.',
          type: 'integer',
          minimum: 1,
        },
        claimDurationMs: {
          description:
            'The platform setting device.claim.duration, used when a claim gives no durationMs. A scenario waits this window out; longer than 30 s, that scenario is skipped (its requirement not tested).',
          type: 'integer',
          minimum: 1,
        },
      },
      additionalProperties: false,
    },
    analytics: {
      description:
        'The analytics component (report API): where it is, the view the features use, its declared limits.',
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri' },
        pathPrefix: {
          description:
            "Default '/apianalytics' (docs/reference/interfaces.md); real Trendz: '/apiTrendz'.",
          type: 'string',
        },
        viewConfigId: {
          description:
            'A saved table view over devices whose names contain "-analytics-", with the columns and filter of the conformance view (docs/how-to/test-an-analytics-service.md).',
          type: 'string',
        },
        limits: {
          description:
            'The limiter the target runs with; a limit left out is declared to be its default (10, docs/reference/interfaces.md).',
          type: 'object',
          properties: {
            poolSize: { type: 'integer', minimum: 1 },
            queueCapacity: { type: 'integer', minimum: 0 },
          },
          additionalProperties: false,
        },
        reportCostMs: {
          description: 'Embedded only: how long each report holds a pool slot.',
          type: 'integer',
          minimum: 0,
        },
      },
      additionalProperties: false,
    },
    connector: {
      description:
        'The REST connector under test: its endpoints, the rest.json it runs with (steps learn endpoints, credentials and rules from it), and the external-API simulator its outgoing calls reach.',
      type: 'object',
      required: ['url', 'configFile'],
      properties: {
        url: {
          description: 'http(s)://host:port of the connector endpoints.',
          type: 'string',
          format: 'uri',
        },
        configFile: {
          description: 'Path of the rest.json the connector runs with.',
          type: 'string',
          minLength: 1,
        },
        gatewayToken: {
          description: "The connector's gateway access token (an ${env:NAME} reference).",
          type: 'string',
        },
        externalApiUrl: {
          description:
            'Control URL of the external-API simulator (iotc simulate external-api) that the rest.json outgoing calls reach.',
          type: 'string',
          format: 'uri',
        },
        publishedPorts: {
          description:
            "Ports of the connector's own network (a container's) published on the harness's host, like docker -p HOST:PORT: the port the connector listens on to the host port of connector.url. With rest.json leaving server.port to its default, {\"5000\": HOST} lets the run exercise that default (RC-SRV-02).",
          type: 'object',
          propertyNames: { pattern: '^[0-9]+$' },
          additionalProperties: { type: 'integer', minimum: 1, maximum: 65535 },
        },
        routedDestinations: {
          description:
            "Destinations host:port of the connector's outgoing calls that its network delivers to the external API (connector.externalApiUrl), the request's URL and Host kept, like /etc/hosts and port forwarding: sensor:80 and 127.0.0.1:5001 let the run exercise the default requestUrlExpression of attribute updates (RC-AUPD-11) and RPC rules (RC-RPC-04). Without them those scenarios are skipped.",
          type: 'array',
          items: { type: 'string', pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[^:/\\s\\[\\]]+):[0-9]+$' },
          uniqueItems: true,
        },
        tls: {
          type: 'object',
          properties: {
            caFile: { type: 'string', minLength: 1 },
            insecureSkipVerify: { type: 'boolean' },
          },
          additionalProperties: false,
        },
        sparse: {
          description:
            'A second REST connector of the same gateway running the conformance file that leaves every optional section out (src/target/embedded-rest-sparse.json, SSL off: an http URL): its URL and the file it runs with. Without both, the scenarios that need it are skipped.',
          type: 'object',
          properties: {
            url: { type: 'string', format: 'uri' },
            configFile: { type: 'string', minLength: 1 },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    capabilities: {
      description:
        'What the target can do: a scenario that needs a capability not listed is skipped, its requirement NOT APPLICABLE.',
      type: 'array',
      items: { enum: CAPABILITIES },
      uniqueItems: true,
    },
    deviations: {
      description: 'Requirement id to the behaviour this target shows instead, and why.',
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['observed', 'reason'],
        properties: { observed: { type: 'string' }, reason: { type: 'string' } },
        additionalProperties: false,
      },
    },
    namePrefix: {
      description: 'Prefix of every entity a run creates.',
      type: 'string',
      minLength: 1,
    },
    timeouts: {
      description:
        'The bounds of waiting on this target (the timing model, steps/support/timing.ts).',
      type: 'object',
      properties: {
        eventuallyMs: {
          description: 'How long a read-back waits for an effect.',
          type: 'integer',
          minimum: 1,
        },
        pollIntervalMs: {
          description: 'The first interval between two looks for an effect.',
          type: 'integer',
          minimum: 1,
        },
        requestMs: {
          description: 'Timeout of one HTTP request made by a driver.',
          type: 'integer',
          minimum: 1,
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;
