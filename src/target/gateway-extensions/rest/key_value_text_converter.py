"""iotc's KeyValueTextConverter for ThingsBoard IoT Gateway 3.8.3's REST connector.

The Python twin of simulators/connector/extensions/KeyValueTextConverter.ts, written for iotc so that the conformance
rest.json's /custom/text endpoint (converter.type custom, converter.extension KeyValueTextConverter) runs on a real
gateway: 3.8.3 loads a custom converter by its class name from the extensions folder (<type> subfolder "rest"),
and iotc's own converters are TypeScript. `iotc gateway-config` writes this file into <out>/extensions/rest/; it is
copied into the gateway's extensions folder (/var/lib/thingsboard_gateway/extensions/rest for the Debian package,
thingsboard_gateway/extensions/rest for a source installation).

The body is text of key=value pairs separated by ";" or new lines, sent as telemetry: numbers as doubles, the rest
as text. 3.8.3 hands a custom converter the parsed request, not bytes: a text/plain body arrives as {"text": body}
merged with the query and path parameters.

deviceInfo has the json converter's four members with the custom converter's defaults of docs/reference/interfaces.md (constant
sources, a fixed device name, profile "default"); the name and profile are resolved by the gateway's own json
converter, so a custom converter names devices exactly as a json one does.
"""

import math
import re

# modules, not classes: 3.8.3's loader takes the first class of this file whose name is the one it looks for, so
# an imported class would be found here under its own name
from thingsboard_gateway.connectors.rest import json_rest_uplink_converter, rest_converter
from thingsboard_gateway.gateway.entities import telemetry_entry
from thingsboard_gateway.tb_utility import tb_utility

CUSTOM_DEVICE_INFO_DEFAULTS = {
    "deviceNameExpression": "Custom device",
    "deviceNameExpressionSource": "constant",
    "deviceProfileExpression": "default",
    "deviceProfileExpressionSource": "constant",
}


def number_or_text(text):
    """A finite number as a double, anything else as the text itself."""
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


class KeyValueTextConverter(rest_converter.RESTConverter):
    def __init__(self, config, logger):
        self._log = logger
        self.__config = config

    def convert(self, config, data):
        device_info = {**CUSTOM_DEVICE_INFO_DEFAULTS, **(self.__config.get("deviceInfo") or {})}
        json_converter = json_rest_uplink_converter.JsonRESTUplinkConverter({"deviceInfo": device_info}, self._log)
        converted = json_converter.convert(config, data)
        values = {}
        for pair in re.split(r"[;\n]", str(data.get("text", ""))):
            key, separator, text = pair.partition("=")
            key = key.strip()
            if not separator or not key:
                continue
            datapoint_key = tb_utility.TBUtility.convert_key_to_datapoint_key(key, None, {}, self._log)
            values[datapoint_key] = number_or_text(text.strip())
        if values:
            converted.add_to_telemetry(telemetry_entry.TelemetryEntry(values))
        return converted
