// `opkit image`: one module per verb, each registering its command on the group made here.
import type { Command } from 'commander';
import { examples } from '../options.js';
import { registerImageBuild } from './build.js';
import { registerImagePull } from './pull.js';
import { registerImagePush } from './push.js';

export function registerImageCommands(program: Command): void {
  const image = program
    .command('image')
    .description('Build operator images, and push and pull OCI images over the distribution API.')
    .addHelpText(
      'after',
      examples(
        [
          'opkit image build --operator operators/memcached',
          'opkit image push dist/images/memcached-operator quay.io/acme/memcached-operator:0.2.0',
          'opkit image pull quay.io/acme/memcached-operator:0.2.0 ./memcached-layout',
        ],
        `Registry credentials come from docker's and podman's login files (docker login, podman login),
including credential helpers; HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured.`,
      ),
    );
  registerImageBuild(image);
  registerImagePush(image);
  registerImagePull(image);
}
