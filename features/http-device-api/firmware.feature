@http-device-api @capability-firmware
Feature: Firmware over the HTTP device API
  When the platform starts a firmware update it sets the shared attributes fw_title, fw_version, fw_checksum and
  fw_checksum_algorithm; the device downloads the package with GET /firmware?title=&version=, whole or in chunks.
  The platform saves those attributes after it answered the assignment, so a scenario that reads them through the
  device first sees them saved through the administration API.

  Background:
    Given a device "gadget" with an access token
    And a firmware package "gadget-fw" version "2.0.1" of 5000 bytes for the profile of "gadget"

  @HTTP-FW-02
  Scenario: Starting an update sets the firmware shared attributes
    When the platform assigns the firmware "gadget-fw" version "2.0.1" to "gadget"
    Then the device "gadget" sees the shared attributes of the firmware "gadget-fw" version "2.0.1"
    And the platform holds the shared attributes of the firmware "gadget-fw" version "2.0.1" for "gadget"

  @HTTP-FW-01
  Scenario: The device downloads the assigned package whole and in chunks
    When the platform assigns the firmware "gadget-fw" version "2.0.1" to "gadget"
    Then the platform holds the shared attributes of the firmware "gadget-fw" version "2.0.1" for "gadget"
    When the device "gadget" downloads the firmware "gadget-fw" version "2.0.1"
    Then the download is the whole firmware "gadget-fw" version "2.0.1"
    And the checksum announced to "gadget" verifies the download
    And the device "gadget" downloads the firmware "gadget-fw" version "2.0.1" in chunks of 1024 bytes and gets the whole package

  @HTTP-FW-01 @HTTP-ERR-05
  Scenario: Without an assigned package there is nothing to download
    When the device "gadget" downloads the firmware "gadget-fw" version "2.0.1"
    Then the response status is 404

  @deviation-HTTP-ERR-05 @HTTP-FW-01
  Scenario: Where other version segments ask for a login, a package that is not assigned is still 404
    When the device "gadget" downloads the firmware "gadget-fw" version "2.0.1"
    Then the response status is 404

