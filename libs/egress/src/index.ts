export * from './address-policy';
export * from './egress-fetch';
export * from './egress-request';
export * from './egress-url';
