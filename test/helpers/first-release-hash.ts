/** The password 'a long password' as the first release stored it: scrypt, N=2^17, r=8, p=1. */
export const FIRST_RELEASE_SCRYPT_HASH = 'scrypt$131072$8$1$wMm2s/Yy/pciQE5lms4zPQ==$C5R9a/g9dHxPjLKaNk7KboXfFa7CCgaHa2Rc1mwrMyo=';
