import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a source address is counted under: an IPv4 address as it is; an IPv6 address by its
 * /64 network, since one subscriber is usually given a whole /64 and could otherwise count
 * under 2^64 addresses. IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
export function addressKeyOf(sourceIp: string): string | undefined {
  const address = sourceIp.trim().toLowerCase();
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return undefined;
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
