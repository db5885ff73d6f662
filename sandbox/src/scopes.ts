// The scope vocabulary of the school platform, exactly as the service interface lists it.
// Kept in one place so that the metadata documents, the consent page, the token checks
// and the OpenAPI description can never disagree about which scopes exist.

export const IDENTITY_SCOPES = ['openid', 'profile', 'email'] as const;

// Only the read/write forms named by the interface exist; e.g. there is no orders:write.
export const DATA_SCOPES = [
  'courses:read',
  'courses:write',
  'students:read',
  'students:write',
  'members:read',
  'members:write',
  'analytics:read',
  'curriculum:read',
  'curriculum:write',
  'orders:read',
  'school:read',
  'school:write',
  'appearance:read',
  'appearance:write',
  'events:read',
  'events:write',
  'membership_plans:read',
  'membership_plans:write',
  'coupons:read',
  'coupons:write',
  'posts:read',
  'posts:write',
  'subscriptions:read',
  'subscriptions:write',
  'digital_products:read',
  'digital_products:write',
  'comments:read',
  'lecturers:read',
  'lecturers:write',
  'storage:write',
  'forms:read',
  'pages:read',
  'pages:write',
  'account:read',
  'account:write',
] as const;

export const ALL_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...DATA_SCOPES];

const KNOWN = new Set(ALL_SCOPES);

export function isKnownScope(scope: string): boolean {
  return KNOWN.has(scope);
}

export function describeScope(scope: string): string {
  switch (scope) {
    case 'openid':
      return 'Sign you in (OpenID Connect)';
    case 'profile':
      return 'Your basic profile information';
    case 'email':
      return 'Your email address';
    default:
      break;
  }
  const [area, access] = scope.split(':');
  if (!area || !access) return scope;
  const words = area.replace(/_/g, ' ');
  return `${access === 'read' ? 'Read' : 'Write'} access to ${words}`;
}
