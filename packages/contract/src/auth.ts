import { z } from 'zod';
import { id, name, timestamp } from './common.js';
import { project } from './projects.js';
import { team, teamWithRole } from './teams.js';

export const email = z.email().max(254).transform((v) => v.trim().toLowerCase());
export const password = z.string().min(8).max(256);

export const signup = z.object({ email, password, name: name.optional() });
export type SignupInput = z.input<typeof signup>;
/**
 * Signing in only looks an address up among stored accounts, so it checks no address format: the
 * first run's owner is `owner@localhost`, which `z.email()` refuses (no dot in the domain), and a
 * format rule added later must never lock out an account that already exists.
 */
const loginEmail = z.string().trim().min(1).max(254).transform((v) => v.toLowerCase());
export const login = z.object({ email: loginEmail, password: z.string().min(1).max(256) });
export type LoginInput = z.input<typeof login>;
export const tokenBody = z.object({ token: z.string().min(1).max(500) });
export const forgotPassword = z.object({ email });
export const resetPassword = z.object({ token: z.string().min(1).max(500), password });
export const onboarding = z.object({ teamName: name, projectName: name });
export type OnboardingInput = z.input<typeof onboarding>;

export const user = z.object({
  id,
  email: z.string(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
  emailVerified: z.boolean(),
  createdAt: timestamp,
});
export type User = z.infer<typeof user>;

export const message = z.object({ message: z.string() });
export const signupResult = z.object({ user, message: z.string() });
export const loginResult = z.object({ user, expiresAt: timestamp });
export const authMe = z.object({ user, teams: z.array(teamWithRole) });
export const onboardingResult = z.object({ team, project });
