#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests when it is missing. Needs root; otherwise
# it says so and the browser tests skip themselves with the same sentence.
set -u
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "browser tests will be skipped: /usr/bin/chromium is missing and installing it needs root (apt-get install -y chromium)."
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "browser tests will be skipped: /usr/bin/chromium is missing and this machine has no apt-get."
  exit 0
fi
echo "installing Debian's chromium for the browser tests ..."
(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
  || echo "browser tests will be skipped: apt-get install chromium failed."
exit 0
