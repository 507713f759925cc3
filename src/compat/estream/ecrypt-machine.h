/*
 * ecrypt-machine.h: machine-specific overrides of the eSTREAM portability
 * macros. rijn needs none (its backends handle the CPU), so this minimal
 * stand-in for the framework's file is empty on purpose.
 */
#ifndef ECRYPT_MACHINE
#define ECRYPT_MACHINE

#endif /* ECRYPT_MACHINE */
