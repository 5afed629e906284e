// Configuration of a throwaway OpenStack Swift with the S3 API (`s3api` middleware): one device, one
// replica, every server on loopback. Written into a temp dir at start so nothing touches /etc/swift.

export interface SwiftPorts {
  proxy: number;
  account: number;
  container: number;
  object: number;
  memcached: number;
}

export interface SwiftLayout {
  dir: string;
  devices: string;
  user: string;
  ports: SwiftPorts;
}

/** Tempauth user `test:tester` with key `testing` is the S3 access key / secret pair. */
export const SWIFT_S3_CREDENTIALS = { accessKeyId: 'test:tester', secretAccessKey: 'testing' };
export const SWIFT_REGION = 'us-east-1';

/**
 * Starts one Swift WSGI server. Swift reads swift.conf (hash prefix/suffix, storage policies) from a
 * process-wide directory that defaults to /etc/swift; `set_swift_dir` points it at ours first.
 */
export const RUN_SERVER_PY = `import sys
from swift.common.utils import set_swift_dir
from swift.common.wsgi import run_wsgi

swift_dir, conf_file, kind = sys.argv[1:4]
set_swift_dir(swift_dir)
kwargs = {}
if kind == 'object-server':
    from swift.obj import server
    kwargs['global_conf_callback'] = server.global_conf_callback
sys.exit(run_wsgi(conf_file, kind, **kwargs))
`;

/**
 * Builds the account, container and object rings: one device each, 2^6 partitions, one replica. The
 * RingBuilder API is what \`swift-ring-builder create/add/rebalance\` runs; one interpreter instead of
 * nine CLI calls saves most of the start-up time on a busy machine.
 */
export const BUILD_RINGS_PY = `import sys
from swift.common.ring import RingBuilder

swift_dir = sys.argv[1]
for spec in sys.argv[2:]:
    kind, port = spec.split('=')
    builder = RingBuilder(6, 1, 0)
    builder.add_dev({'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': int(port), 'device': 'd1', 'weight': 100})
    builder.rebalance()
    builder.save('%s/%s.builder' % (swift_dir, kind))
    builder.get_ring().save('%s/%s.ring.gz' % (swift_dir, kind))
`;

export const swiftConf = () => `[swift-hash]
swift_hash_path_suffix = testreport-suffix
swift_hash_path_prefix = testreport-prefix

[storage-policy:0]
name = Policy-0
default = yes
`;

const common = (l: SwiftLayout, port: number) => `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
user = ${l.user}
swift_dir = ${l.dir}
devices = ${l.devices}
mount_check = false
log_level = WARNING
`;

/** The account, container or object server: one app, no middleware. */
export const storageServerConf = (l: SwiftLayout, kind: 'account' | 'container' | 'object') => `${common(l, l.ports[kind])}
[pipeline:main]
pipeline = ${kind}-server

[app:${kind}-server]
use = egg:swift#${kind}
`;

// s3api needs a memcache (tempauth keeps its tokens there). slo must come after s3api: s3api turns S3
// multipart uploads into static large objects, and without slo behind it CompleteMultipartUpload fails.
const PIPELINE = 'catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server';
/** Middleware that needs no settings: section name → entry point. */
const PLAIN_FILTERS = { catch_errors: 'catch_errors', gatekeeper: 'gatekeeper', healthcheck: 'healthcheck', 'proxy-logging': 'proxy_logging', listing_formats: 'listing_formats', copy: 'copy', slo: 'slo', dlo: 'dlo' };

export const proxyConf = (l: SwiftLayout) => `${common(l, l.ports.proxy)}
[pipeline:main]
pipeline = ${PIPELINE}

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
allow_account_management = true

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${l.ports.memcached}

[filter:s3api]
use = egg:swift#s3api
location = ${SWIFT_REGION}

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = ${SWIFT_S3_CREDENTIALS.secretAccessKey} .admin
${Object.entries(PLAIN_FILTERS)
  .map(([name, entry]) => `\n[filter:${name}]\nuse = egg:swift#${entry}\n`)
  .join('')}`;
