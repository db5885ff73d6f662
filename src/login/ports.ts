/**
 * The ports browsers refuse to connect to (the "bad ports" of the WHATWG Fetch standard): a
 * redirect to a loopback listener on one of them never arrives, so the login would only wait.
 */
const BLOCKED_PORTS: ReadonlyMap<number, string> = new Map([
  [1, 'tcpmux'], [7, 'echo'], [9, 'discard'], [11, 'systat'], [13, 'daytime'], [15, 'netstat'], [17, 'qotd'], [19, 'chargen'],
  [20, 'ftp-data'], [21, 'ftp'], [22, 'ssh'], [23, 'telnet'], [25, 'smtp'], [37, 'time'], [42, 'name'], [43, 'nicname'],
  [53, 'domain'], [69, 'tftp'], [77, 'priv-rjs'], [79, 'finger'], [87, 'ttylink'], [95, 'supdup'], [101, 'hostname'],
  [102, 'iso-tsap'], [103, 'gppitnp'], [104, 'acr-nema'], [109, 'pop2'], [110, 'pop3'], [111, 'sunrpc'], [113, 'auth'],
  [115, 'sftp'], [117, 'uucp-path'], [119, 'nntp'], [123, 'ntp'], [135, 'epmap'], [137, 'netbios-ns'], [139, 'netbios-ssn'],
  [143, 'imap'], [161, 'snmp'], [179, 'bgp'], [389, 'ldap'], [427, 'svrloc'], [465, 'smtp+ssl'], [512, 'print / exec'],
  [513, 'login'], [514, 'shell'], [515, 'printer'], [526, 'tempo'], [530, 'courier'], [531, 'chat'], [532, 'netnews'],
  [540, 'uucp'], [548, 'afp'], [554, 'rtsp'], [556, 'remotefs'], [563, 'nntp+ssl'], [587, 'smtp (submission)'],
  [601, 'syslog-conn'], [636, 'ldap+ssl'], [989, 'ftps-data'], [990, 'ftps'], [993, 'imap+ssl'], [995, 'pop3+ssl'],
  [1719, 'h323gatestat'], [1720, 'h323hostcall'], [1723, 'pptp'], [2049, 'nfs'], [3659, 'apple-sasl'], [4045, 'npp'],
  [4190, 'sieve'], [5060, 'sip'], [5061, 'sips'], [6000, 'x11'], [6566, 'sane-port'], [6665, 'irc'], [6666, 'irc'],
  [6667, 'irc'], [6668, 'irc'], [6669, 'irc'], [6679, 'osaut'], [6697, 'ircs-u'], [10080, 'amanda'],
]);

/** Why a loopback port cannot receive the browser's redirect, or undefined when it can. */
export function portProblem(port: number): string | undefined {
  const service = BLOCKED_PORTS.get(port);
  if (service) return `browsers refuse to connect to port ${port} (${service})`;
  if (port < 1024) return `port ${port} is below 1024, where listening needs privileges`;
  return undefined;
}
