/**
 * One exchange of a driver with a target (an HTTP request and its response, an MQTT CONNECT or
 * PUBLISH and how it ended): what drivers hand their `recorder`, and what the harness keeps as a
 * scenario's evidence (src/report/exchanges.ts). A type both sides share, so drivers do not import
 * the harness's report code.
 */
export interface HttpExchange {
  protocol: 'http';
  /** Who sent it: the device API driver, the admin client, the analytics client. */
  via: string;
  request: { method: string; url: string; headers?: Record<string, string>; body?: string };
  response: { status: number; body?: string };
  elapsedMs: number;
  /**
   * How many times in a row the same request got the same status (polls of an `eventually`); the
   * last answer is shown.
   */
  repeated?: number;
  /** For a failed scenario: the command line that repeats it by hand (reproduceExchange). */
  reproduce?: string;
}

export interface MqttExchange {
  protocol: 'mqtt';
  via: string;
  /**
   * CONNECT and PUBLISH are sent by the driver; RECEIVED is a PUBLISH the platform sent to it.
   * SUBSCRIBE and OTHER (its name in payload) are packets of a client under test (`iotc certify`).
   */
  request: {
    packet: 'CONNECT' | 'PUBLISH' | 'RECEIVED' | 'SUBSCRIBE' | 'OTHER';
    topic?: string;
    qos?: number;
    url?: string;
    payload?: string;
  };
  /**
   * How it ended: 'acked', 'sent', 'closed', 'timeout' (PUBLISH); 'accepted', 'refused' (CONNECT);
   * 'received'.
   */
  response: { result: string; reasonCode?: number; reasonString?: string };
  elapsedMs: number;
  repeated?: number;
  /** For a failed scenario: the command line that repeats it by hand (reproduceExchange). */
  reproduce?: string;
}

export type Exchange = HttpExchange | MqttExchange;
export type ExchangeRecorder = (exchange: Exchange) => void;
